"""A DataFrame as a GitHub-flavoured Markdown table (no extra dependency)."""
from __future__ import annotations

import pandas as pd


def _cell(v) -> str:
    if v is None or (pd.api.types.is_scalar(v) and pd.isna(v)):
        return ""
    if isinstance(v, float):
        return format(v, ".6g")
    return str(v).replace("|", "\\|").replace("\n", " ")


def to_markdown(df: pd.DataFrame) -> str:
    """``df`` as a Markdown table: numbers right-aligned, floats to 6 significant
    digits, missing values empty, ``|`` escaped."""
    if df.columns.empty:
        return "(no runs)"
    cols = [str(c) for c in df.columns]
    numeric = [pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c]) for c in df.columns]
    lines = ["| " + " | ".join(c.replace("|", "\\|") for c in cols) + " |",
             "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    for row in df.itertuples(index=False, name=None):
        lines.append("| " + " | ".join(_cell(v) for v in row) + " |")
    return "\n".join(lines)
