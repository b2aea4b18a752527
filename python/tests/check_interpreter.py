#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Says which Python and torch this interpreter has; fails when torch is missing or older than --torch MAJOR."""

import argparse
import sys


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--torch", type=int, default=1, help="the lowest torch major version accepted")
    args = parser.parse_args()
    try:
        import torch
    except ImportError as e:
        sys.exit(f"{sys.executable} cannot import torch ({e})")
    print(f"{sys.executable}: python {sys.version.split()[0]}, torch {torch.__version__}")
    if int(torch.__version__.split(".")[0]) < args.torch:
        sys.exit(f"torch {torch.__version__} is older than torch {args.torch}")


if __name__ == "__main__":
    main()
