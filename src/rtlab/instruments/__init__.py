"""Live capture from instruments: the RP2040 capture module's serial protocol."""
