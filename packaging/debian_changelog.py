#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the package's changelog.Debian.gz from the AppStream metainfo's <releases>, newest first, so that the
release notes are written once. Usage: debian_changelog.py METAINFO PACKAGE DEBIAN_REVISION MAINTAINER OUTPUT"""

import datetime
import email.utils
import gzip
import sys
import textwrap
import xml.etree.ElementTree as ET


def entry(package: str, version: str, date: str, items: list[str], maintainer: str) -> str:
    when = datetime.datetime.strptime(date, "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc)
    lines = [f"{package} ({version}) unstable; urgency=medium", ""]
    for item in items:
        lines += textwrap.wrap(item, width=78, initial_indent="  * ", subsequent_indent="    ")
    lines += ["", f" -- {maintainer}  {email.utils.format_datetime(when)}", ""]
    return "\n".join(lines)


def main() -> int:
    if len(sys.argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    metainfo, package, revision, maintainer, output = sys.argv[1:]
    releases = ET.parse(metainfo).getroot().findall("./releases/release")
    if not releases:
        print(f"debian_changelog.py: {metainfo} has no <releases><release>: add the release's notes there",
              file=sys.stderr)
        return 1
    entries = []
    for release in releases:
        description = release.find("description")
        items = [" ".join("".join(node.itertext()).split()) for node in description.iter() if node.tag in ("p", "li")]
        entries.append(entry(package, f"{release.get('version')}-{revision}", release.get("date"), items, maintainer))
    # Debian's reproducible form: no file name, no time stamp in the gzip header.
    with open(output, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as out:
        out.write("\n".join(entries).encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
