"""The ``flashrr`` command line (click).  Each command group lives in its own module."""
from __future__ import annotations

import click

from flashrr._version import __version__

from .compare_cmds import compare_cmd
from .pv_cmds import pv
from .reproduce_cmds import reproduce_cmd
from .run_cmds import presets_cmd, run_cmd
from .sweep_cmds import results, sweep
from .trace_cmds import trace


@click.group()
@click.version_option(__version__, prog_name="flashrr")
def main():
    """flashrr: simulate read disturb and read reclaim in NAND-flash SSDs."""


main.add_command(compare_cmd)
main.add_command(run_cmd)
main.add_command(presets_cmd)
main.add_command(trace)
main.add_command(sweep)
main.add_command(results)
main.add_command(reproduce_cmd)
main.add_command(pv)
