"""The real trace samples shipped in the package (:mod:`flashrr.trace.samples`)."""
from __future__ import annotations

import gzip
from pathlib import Path

import pytest

import flashrr
from flashrr.trace.pipeline import open_trace_spec
from flashrr.trace.samples import MIN_REQUESTS, SAMPLES, sample_path, sample_spec

DATA = Path(__file__).parent / "data"


def test_shipped_web_search_sample_is_the_mqsim_trace_unchanged():
    shipped = gzip.decompress(sample_path("websearch").read_bytes())
    assert shipped == (DATA / "wsrch-small.mqsim.txt").read_bytes()


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_sample_reads_back_to_its_stated_request_count(name):
    trace = flashrr.read_trace(sample_path(name), cache=False)
    assert len(trace) == SAMPLES[name].requests >= MIN_REQUESTS


def test_sample_spec_cuts_or_repeats_to_the_requested_length():
    path = sample_path("websearch")
    assert sample_spec("websearch", 3_000) == f"{path}?first=3000"
    # 1,055,448 / 24,783 = 42.6 -> 43 plays; 36,000 / 24,783 = 1.45 -> 1 play, the whole sample
    assert sample_spec("websearch", 1_055_448) == f"{path}?repeat=43"
    assert sample_spec("websearch", 36_000) == f"{path}"
    # a pipeline's own repeat multiplies the sample's plays
    assert sample_spec("websearch", 50_000, {"fold": "modulo", "repeat": 10}) == f"{path}?fold=modulo&repeat=20"
    assert sample_spec("websearch", 100, {"repeat": 3}) == f"{path}?first=100&repeat=3"


def test_sample_spec_gives_that_many_requests():
    source, _ = open_trace_spec(sample_spec("websearch", 60_000))
    n = sum(len(chunk) for chunk in source.chunks(1 << 16))
    assert n == 2 * 24_783


def test_unknown_sample_and_bad_length_are_named():
    with pytest.raises(ValueError, match="unknown trace sample 'msr'.*websearch"):
        sample_spec("msr", 1000)
    with pytest.raises(ValueError, match="n_requests must be >= 1"):
        sample_spec("websearch", 0)
