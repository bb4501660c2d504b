"""``python -m flashrr.trace.model.templates [DATA_DIR]``: refit every template from the real samples."""
import sys
from pathlib import Path

from . import build_templates

data = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("tests/data")
for path in build_templates(data):
    print(f"{path}: {path.stat().st_size / 1024:,.0f} KiB")
