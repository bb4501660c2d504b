"""`flashrr run`, `flashrr presets` and the top-level group."""
import json

from click.testing import CliRunner

from flashrr._version import __version__
from flashrr.cli import main


def test_version():
    r = CliRunner().invoke(main, ["--version"])
    assert r.exit_code == 0 and __version__ in r.output


def test_run_json_on_real_trace():
    """The MQSim web-search sample (tests/data, MQSim repository) on the shuffler preset."""
    r = CliRunner().invoke(main, ["run", "--trace", "tests/data/wsrch-small.mqsim.txt", "--repeat", "2", "--json"])
    assert r.exit_code == 0, r.output
    s = json.loads(r.output)
    assert s["requests"] == 2 * 24_783 and s["policy"] == "baseline" and s["device"] == "shuffler"


def test_run_table_output_and_engine_choice():
    r = CliRunner().invoke(main, ["run", "--trace", "synth:lun0?n_requests=2000", "--engine", "reference"])
    assert r.exit_code == 0, r.output
    assert "rr_count" in r.output and "read_latency_p9999_ns" in r.output


def test_run_errors_are_one_line():
    runner = CliRunner()
    for args, msg in ((["run", "--policy", "nope", "--trace", "synth:lun0?n_requests=100"], "unknown policy 'nope'"),
                      (["run", "--trace", "missing.csv"], "missing.csv"),
                      (["run", "--preset", "nope"], "unknown device preset"),
                      (["run", "--trace", "synth:lun0?n_requests=100", "-p", "bogus=1"], "bogus")):
        r = runner.invoke(main, args)
        assert r.exit_code != 0 and msg in r.output and "Traceback" not in r.output, (args, r.output)


def test_presets_listing_and_toml():
    runner = CliRunner()
    r = runner.invoke(main, ["presets"])
    assert r.exit_code == 0 and "shuffler-32" in r.output and "lun0" in r.output
    r = runner.invoke(main, ["presets", "phasedrr"])
    assert r.exit_code == 0 and "rr_threshold_reads = 25000" in r.output
