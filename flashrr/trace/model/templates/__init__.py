"""Workload models fitted to the real trace samples of ``tests/data``: the shapes of the paper presets.

A paper's trace table gives a trace's request count, read ratio, sizes, hot
ratio and footprint, but not where its reads cluster or how often they come
back.  :mod:`flashrr.trace.model.presets` takes that shape from the fitted
model of a real sample of the same family (:data:`TEMPLATES`), and the table's
numbers from the paper.

The TOML files here are rebuilt from the samples with
``python -m flashrr.trace.model.templates`` (run from the repository root);
each was fitted with the default :class:`~flashrr.trace.model.fit.FitSettings`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..schema import WorkloadModel, load_model

__all__ = ["Template", "TEMPLATES", "load_template", "build_templates"]

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Template:
    """A fitted sample: ``sample`` (path under the repository's ``tests/data``), the workload ``family`` it
    stands for, where the trace comes from (``credit``), and whether its arrival times can shape arrivals
    (``timed``: False when the sample's timestamps are too coarse)."""

    name: str
    sample: str
    family: str
    credit: str
    timed: bool = True

    @property
    def path(self) -> Path:
        return HERE / f"{self.name}.toml"


TEMPLATES = {t.name: t for t in (
    Template("cloudphysics", "cloudphysics-io.mqsim.txt.gz", "virtual-machine block I/O",
             "CloudPhysics VM trace, data/cloudPhysicsIO.vscsi of libCacheSim (1a1a11a/libCacheSim, GPL-3.0)"),
    Template("tencent-cbs", "tencent-cbs-sample.tencent.csv.gz", "cloud block storage",
             "Tencent CBS sample (SNIA IOTTA), from ben-manes/caffeine's simulator test data (Apache-2.0)",
             timed=False),
    Template("websearch", "wsrch-small.mqsim.txt", "web search",
             "traces/wsrch-small.trace of CMU-SAFARI/MQSim (MIT)"),
    Template("msr-hm", "msr-hm_0-sample.msr.csv.gz", "MSR Cambridge enterprise servers",
             "MSR Cambridge hm_0 excerpt (SNIA IOTTA), from ben-manes/caffeine's simulator test data (Apache-2.0)"),
    Template("systor", "systor17-traces-sample.systor.csv.gz", "SYSTOR'17 virtual desktops",
             "SYSTOR'17 VDI excerpt (SNIA IOTTA), from ben-manes/caffeine's simulator test data (Apache-2.0)"),
    Template("tpcc", "tpcc-small.mqsim.txt", "OLTP (TPC-C)",
             "traces/tpcc-small.trace of CMU-SAFARI/MQSim (MIT)"),
)}


@lru_cache(maxsize=None)
def load_template(name: str) -> WorkloadModel:
    """The fitted model of template ``name``; ValueError naming the templates for an unknown one."""
    if name not in TEMPLATES:
        raise ValueError(f"unknown model template {name!r}; expected one of {', '.join(TEMPLATES)}")
    return load_model(TEMPLATES[name].path)


def build_templates(data_dir, out_dir=None) -> list[Path]:
    """Fit every template's sample in ``data_dir`` (the repository's tests/data) and write its TOML
    here, or into ``out_dir``."""
    from ...io import read_trace
    from ..fit import fit_model
    from ..schema import save_model

    out = []
    for t in TEMPLATES.values():
        trace = read_trace(Path(data_dir) / t.sample, cache=False)
        model = fit_model(trace, name=t.name)
        source = dict(model.source)
        source.update({"sample": t.sample, "family": t.family, "credit": t.credit})
        out.append(save_model(model.replace(source=source), Path(out_dir or HERE) / t.path.name))
    return out
