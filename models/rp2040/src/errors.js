'use strict';
/** A failure of the image or of its run that the model reports as one line (no stack). */
class ModelError extends Error {}
module.exports = { ModelError };
