"""The compiled engine's event log: its rows and its columns give the same event table, and
the engine may go on after either was taken."""
import numpy as np
import pandas as pd

from flashrr._core.event_log import EventLog, EventTable
from flashrr.result import Result


def _log():
    log = EventLog(2)
    log.append(100, 7, 1, np.array([5, 9], np.int32), 12, "greedy", 3, 0, 1, None)
    log.append(250, 3, 0, np.array([0, 40_000], np.int32), 0, "hot", 0, 2, 0, -0.25)
    return log


def test_rows_and_table_give_the_same_event_table():
    log = _log()
    rows = log.rows([900, -1])
    assert rows[0][:3] == (100, 7, 1) and list(rows[0][3]) == [5, 9]
    assert rows[0][4:] == (12, "greedy", 900, 3, 0, 1, None)
    assert rows[1][4:] == (0, "hot", -1, 0, 2, 0, -0.25)
    from_rows, from_table = Result._events(rows), Result._events(log.table([900, -1]))
    pd.testing.assert_frame_equal(from_rows, from_table)
    assert from_table["block_reads"].tolist() == [(5, 9), (0, 40_000)]
    assert np.isnan(from_table["rber_margin"][0]) and from_table["rber_margin"][1] == -0.25


def test_an_empty_log_gives_the_frame_of_no_rows():
    empty = EventLog(4)
    pd.testing.assert_frame_equal(Result._events(empty.table([])), Result._events([]))


def test_the_log_grows_after_its_rows_and_table_were_taken():
    log = _log()
    rows, table = log.rows([1, 2]), log.table([1, 2])
    log.append(300, 1, 0, np.array([1, 1], np.int32), 4, "greedy", 0, 0, 4, None)
    assert len(log) == 3 and len(rows) == 2 and len(table) == 2 and isinstance(table, EventTable)
    assert [r[0] for r in log.rows([1, 2, 3])] == [100, 250, 300]
    log.clear()
    assert len(log) == 0 and log.rows([]) == []
