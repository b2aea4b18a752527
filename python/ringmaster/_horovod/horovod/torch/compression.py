# SPDX-License-Identifier: GPL-3.0-or-later
from ringmaster._hvd.compression import Compression, Compressor, FP16Compressor, NoneCompressor  # noqa: F401
