"""A workload model fitted to a block trace, and the traces it generates.

Why: read disturb works on physical blocks, and the device preconditions the
logical space in LPN order, so where the reads of a trace cluster, and how
often the same pages come back before the cache forgets them, decide which
blocks become read-hot.  A synthetic trace with the right table statistics
(read ratio, sizes, hot ratio, footprint) but none of that structure can give
several times the read reclaims of the trace it imitates.

Each request is one of five kinds, and the model keeps, per op (read, write):

* **hot units** — the units the op's requests start in most often (logs,
  metadata): the share of the op's requests that go there, each unit's
  weight and size.  They give writes a page-level heat map of their own, so
  GC sees the trace's mix of hot and cold victims;
* **re-accesses** — a request that repeats the start of one of the last
  ``reuse_window_requests`` requests: its probability by the kind of the
  previous request of the same op, the share whose target (the request it
  repeats) is a write, and the distance to the target, counted in requests of
  the target's op.  This sets the cache hit ratio and keeps reads and writes
  touching the same data as the trace's do (reads of written data, rewrites,
  re-reads);
* **continuations** — a request that starts where the previous request of its
  op ended: its probability by that request's kind (by run length, for a
  continuation: the run-length distribution) and its sizes.  Runs tile the
  space without overlap, which is how writes fill and invalidate blocks;
* **near requests** — a request that starts inside (or within a margin of)
  the extent of a recent request: its probability by the kind of the
  previous request of the op, the distance to that request, where it starts
  in its extent, and its size.  This is short-range page reuse: the small
  read of a page a large request just read;
* **fresh requests**, apart for those that start a run and the others: where
  they go — a heat map of the address space at region granularity (runs of
  consecutive regions with one weight, so hot regions stay contiguous), and
  inside each region a multiplicative cascade: every node of a binary tree over
  the region's units sends a share of its requests to its first half, drawn
  from a per-heat-level and per-depth distribution fitted to the trace.  This
  is the b-model of M. Wang et al., "Data mining meets performance evaluation:
  fast algorithms for modeling bursty traffic" (ICDE 2002), which M. Wang et
  al. applied to disk block addresses in "Capturing the spatio-temporal
  behavior of real traffic data" (Performance 2002); here each depth has a
  fitted distribution of shares instead of one bias.  The shares of a region
  are a hash of the seed, the op, the region and the node, so a region's hot
  spots persist through the trace without being stored.  A fresh request
  avoids the units recent requests started in, and (but for the trace's share
  of overlapping ones) those they covered;
* **sizes** — per heat level of the region a request starts in (large
  sequential transfers and small hot reads live in different places), for
  continuations, and how often a unit is read with the same size;
* **working-set drift** — ``phases`` consecutive parts of the trace, each with
  its own heat maps.

And for the whole trace: the op sequence (a two-state Markov chain) and the
arrival process (a Markov chain over gap states, each with its own gap
distribution, which keeps bursts and idle periods), both per time phase (equal
parts of the trace: load and op mix drift).  Fitting statistics per part of a
trace and replaying them follows V. Tarasov et al., "Extracting flexible,
replayable models from large block traces" (FAST 2012), which keeps
multi-dimensional statistics per chunk of a trace.

What the model does not keep: exact page identities (a generated trace
re-reads the same regions, not the same pages), stream identity (a run starts
from a drawn head, not from the file a real scan reads again), re-accesses
farther apart than the window, and correlations between arrivals and what is
accessed within a time phase.

Units: bytes, ns, requests.  Entry points: :func:`fit_model`,
:class:`ModelSource` / :func:`generate_trace`, :func:`load_model` /
:func:`save_model`, the trace specs ``model:FILE.toml?n_requests=N&seed=S``
and ``model:PRESET`` (a paper's trace row, :mod:`.presets`), and the command
lines ``flashrr trace fit`` and ``flashrr trace validate``.
"""
from .fit import MIN_REQUESTS, FitSettings, fit_model
from .generate import ModelSource, compiled_kernel_available, generate_trace
from .schema import Arrivals, HeatMap, ModelError, OpModel, WorkloadModel, load_model, save_model

__all__ = ["WorkloadModel", "OpModel", "HeatMap", "Arrivals", "ModelError", "FitSettings", "fit_model",
           "MIN_REQUESTS", "ModelSource", "generate_trace", "load_model", "save_model", "compiled_kernel_available"]
