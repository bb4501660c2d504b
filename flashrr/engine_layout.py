"""The engine's layout of a config, with the model tables it consumes.

The engine (``flashrr._core``) takes the PV model's latencies and the error model's
read-count tables as ready-made tables on its layout; it imports neither model.
:func:`engine_layout` builds them from the config (each model only when the config
switches it on, so a run without them imports neither) and hands them to
:func:`flashrr._core.layout.build_layout`."""
from __future__ import annotations

from ._core.layout import Layout, build_layout, lane_components
from .config import SimConfig


def engine_layout(config: SimConfig, metadata_bytes: int = 0) -> Layout:
    """:func:`~flashrr._core.layout.build_layout` of ``config`` with the tables of the
    models it switches on; ``metadata_bytes``: policy DRAM use (bytes), taken from the cache."""
    pv = error_tables = None
    if config.process_variation.pv_model != "off":
        from .pv.engine_tables import engine_tables

        lanes = lane_components(config)
        pv = engine_tables(config, lanes.comp_die, lanes.comp_plane_in_die, lanes.n_lanes, config.k)
    if config.error_model.enabled:
        from .reliability.engine_tables import ErrorTables

        error_tables = ErrorTables(config, config.geometry.n_blocks)
    return build_layout(config, metadata_bytes, pv=pv, error_tables=error_tables)
