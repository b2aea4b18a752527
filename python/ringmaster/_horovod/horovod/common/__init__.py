# SPDX-License-Identifier: GPL-3.0-or-later
"""horovod.common as scripts import it: the exceptions and process sets."""
