"""Compressed copies of cached pages: the coding the compression middleware would pick, and bytes that decode back."""

from __future__ import annotations

import gzip

import brotli
import pytest
from backports import zstd
from django.test import RequestFactory

from web.compression import IDENTITY, accepted_coding, compress, compressible

PAGE = b"<!doctype html><title>gpufit</title>" + b"<tr><td>H100</td><td>$2.25</td></tr>" * 400
DECODE = {"zstd": zstd.decompress, "br": brotli.decompress, "gzip": gzip.decompress}


@pytest.mark.parametrize(
    ("accept_encoding", "coding"),
    [
        ("gzip, deflate, br, zstd", "zstd"),
        ("gzip, br", "br"),
        ("gzip", "gzip"),
        ("gzip;q=1.0, br;q=0.5", "gzip"),
        ("", IDENTITY),
        ("deflate", IDENTITY),
    ],
)
def test_coding_is_the_one_the_middleware_chooses(accept_encoding, coding):
    request = RequestFactory().get("/", headers={"Accept-Encoding": accept_encoding} if accept_encoding else {})
    assert accepted_coding(request) == coding


@pytest.mark.parametrize("coding", ["zstd", "br", "gzip"])
def test_each_coding_decodes_back_to_the_page_and_is_smaller(coding):
    compressed = compress(PAGE, coding)
    assert bytes(DECODE[coding](compressed)) == PAGE
    assert len(compressed) < len(PAGE) / 10


def test_only_text_and_json_long_enough_are_compressible():
    assert compressible("text/html; charset=utf-8", PAGE)
    assert compressible("application/json", PAGE)
    assert not compressible("image/png", PAGE)
    assert not compressible("text/html", b"<p>short</p>")


def test_an_unknown_coding_is_refused():
    with pytest.raises(ValueError, match="deflate"):
        compress(PAGE, "deflate")
