"""The ``flashrr`` command line (click).  Each command group lives in its own module,
imported only when that command runs or shows its own help, so ``flashrr --help``
and each command load only what they need."""
from __future__ import annotations

import importlib

import click

from flashrr._version import __version__

#: command name -> (its module, the click command's name in it, the first sentence of its help,
#: which ``flashrr --help`` shortens as click does; a test holds it equal to the command's own)
COMMANDS = {
    "compare": ("flashrr.cli.compare_cmds", "compare_cmd",
                "Run several read-reclaim policies on one trace and print one row per policy: RRs, page moves, "
                "erases, WAF, read latency (mean, p99, p99.99), cache hit ratio, metadata, blocked and "
                "redirected reads, and each metric's change against the first policy in %."),
    "presets": ("flashrr.cli.run_cmds", "presets_cmd",
                "List device and trace presets, or print one (a device preset as TOML)."),
    "pv": ("flashrr.cli.pv_cmds", "pv",
           "Process-variation-aware superblock assembly (the QSTR-MED / PV Check paper)."),
    "reliability": ("flashrr.cli.reliability_cmds", "reliability",
                    "The error model: RBER, the rber trigger's read counts, the retry ladder, the safety study."),
    "reproduce": ("flashrr.cli.reproduce_cmds", "reproduce_cmd",
                  "Run PAPER's experiments and write every figure (PNG, PDF, CSV) and claims.md."),
    "results": ("flashrr.cli.sweep_cmds", "results", "Print the results stored in DIR by `flashrr sweep`, one row per run."),
    "run": ("flashrr.cli.run_cmds", "run_cmd", "Simulate one policy on one trace and print the summary."),
    "sweep": ("flashrr.cli.sweep_cmds", "sweep",
              "Run the sweep described by SPEC (a TOML file): traces x devices x policy parameter grids x seeds."),
    "trace": ("flashrr.cli.trace_cmds", "trace", "Read, summarise, convert and synthesise block I/O traces."),
}


class LazyGroup(click.Group):
    """A group whose commands (:data:`COMMANDS`) are imported on first use; its
    own help lists them from their help's first sentence without importing them."""

    def list_commands(self, ctx) -> list:
        return sorted(set(super().list_commands(ctx)) | set(COMMANDS))

    def get_command(self, ctx, name: str):
        if name in COMMANDS and name not in self.commands:
            module, attr, _ = COMMANDS[name]
            self.add_command(getattr(importlib.import_module(module), attr), name)
        return super().get_command(ctx, name)

    def format_commands(self, ctx, formatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = [(n, (self.commands[n] if n in self.commands else click.Command(n, help=COMMANDS[n][2]))
                 .get_short_help_str(limit)) for n in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup)
@click.version_option(__version__, prog_name="flashrr")
def main():
    """flashrr: simulate read disturb and read reclaim in NAND-flash SSDs."""
