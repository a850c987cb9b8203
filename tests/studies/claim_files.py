"""A published-figures file with one claim, as the claim loader's tests write it."""

from __future__ import annotations

import pytest

from rtlab.studies import reproduction as rp

STUDY = '[study]\nkey = "z"\nshort = "z"\ntitle = "z"\nauthors = "z"\nfile = "z.txt"\n'


def refused_claim(claim: str, match: str) -> None:
    """z.toml whose one claim is `claim` (TOML lines) is refused when loaded, saying `match`."""
    with pytest.raises(rp.PublishedError, match=match):
        rp.parse(f"{STUDY}[[claim]]\n{claim}", "z.toml")
