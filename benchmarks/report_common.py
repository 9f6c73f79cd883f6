"""What the benchmark scripts share when they report: the data folder, progress lines, the
header naming the command and the machine, and writing the markdown out.

Imported by the scripts run as ``python benchmarks/<script>.py`` (this folder is then first on
``sys.path``).
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

import numpy as np
import pandas as pd


def data_dir(path: str) -> Path:
    """The datasets folder: ``path`` as given, or relative to the repository when it does not exist."""
    folder = Path(path)
    return folder if folder.exists() else Path(__file__).resolve().parent.parent / path


def log(message: str) -> None:
    """A progress line on stderr (the tables go to stdout)."""
    print(message, file=sys.stderr, flush=True)


def header(script: str, argv=None) -> str:
    """The command that produced a report and the machine it ran on (markdown, two lines)."""
    args = " ".join(argv if argv is not None else sys.argv[1:])
    return (f"Command: `python benchmarks/{script} {args}`  \nMachine: {platform.platform()}, {os.cpu_count()} CPUs; "
            f"python {platform.python_version()}, numpy {np.__version__}, pandas {pd.__version__}.")


def emit(text: str, out: str | None) -> None:
    """Print the report and, when ``out`` is given, write it to that file too."""
    print(text)
    if out:
        Path(out).write_text(text, encoding="utf-8")
