"""Inputs bench/fuzz_parsers.py found that crashed a parser: each now gets its error."""

from __future__ import annotations

import pytest

from rtlab.protocol import ProtocolError, parse


def test_rtl1_non_ascii_base64_is_a_protocol_error() -> None:
    """`sb` with a non-ASCII payload leaked binascii's ValueError (found by atheris)."""
    text = "@rtl1 hello workload=w version=1\n@rtl1 series x unit=ns\n@rtl1 sb x 0 1 \u00e9A\n"
    with pytest.raises(ProtocolError, match="bad base64") as info:
        parse(text, source="fuzz")
    assert info.value.line == 3
