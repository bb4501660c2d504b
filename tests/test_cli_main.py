"""The installed `flashrr` entry point exposes every command group."""
from click.testing import CliRunner

from flashrr.cli import main


def test_every_command_is_registered():
    out = CliRunner().invoke(main, ["--help"]).output
    for cmd in ("run", "presets", "trace", "sweep", "results", "reproduce"):
        assert f"  {cmd} " in out, cmd


def test_sweep_end_to_end_from_the_top_level(tmp_path):
    """A two-run sweep through `flashrr sweep` and back through `flashrr results`."""
    spec = tmp_path / "s.toml"
    spec.write_text('seeds = [0]\ntraces = ["synth:lun0?n_requests=3000"]\ndevices = ["shuffler"]\n'
                    "[policies]\nbaseline = {}\n")
    runner = CliRunner()
    r = runner.invoke(main, ["sweep", str(spec), "--out", str(tmp_path / "out"), "--jobs", "0", "--no-progress"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(main, ["results", str(tmp_path / "out"), "--format", "csv"])
    assert r.exit_code == 0 and r.output.count("\n") == 2 and "baseline" in r.output
