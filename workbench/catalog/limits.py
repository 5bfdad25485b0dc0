"""How big and how deep a catalog file may be, in one place.

Catalog files come from strangers: the NetBox community device-type library, a
vendor's download, a colleague's folder.  One crafted file (a YAML "billion laughs",
a self-referencing alias, a 60 MB dump, ten thousand nested lists) must cost one
error line naming it, not minutes of CPU, gigabytes of memory or a traceback that
stops the window from starting.  Every limit below is checked *before* the work it
protects: the size before the file is read, aliases, tags, depth, value count and
string length while the YAML events are turned into values (nothing is expanded or
constructed first), and entry counts before any entry is validated.

Each value is set far above what real files need, so a genuine catalog never meets
one, and low enough that a file at every limit still loads in well under a second.
The figures quoted for real files were measured on the shipped ``catalogs/`` and on
device types of the community library (patch panels and 64-port switches are its
largest files).
"""

from __future__ import annotations

MAX_FILE_BYTES: int = 1024 * 1024
"""Largest catalog file read, in bytes (1 MiB).

The library's largest device types (patch panels listing hundreds of front and rear
ports) are under 100 KB and the shipped ``items:`` files under 16 KB, so this is ten
times the largest real file.  It is checked with ``fstat`` before a byte is read, and
the read itself stops one byte past it, so a growing file or a device cannot get
round it.  Without it a 59 MB file took 52 s and 2.6 GB to load, at every start.
"""

MAX_VALUES_PER_FILE: int = 100_000
"""Most YAML values (scalars, lists and mappings, keys included) in one file.

A 64-port switch is about 500 values and a 500-port patch panel about 5,000.  Each
value costs a few hundred bytes while a file is read, so this bounds one file's
memory to tens of megabytes even when it is written as ``[0,0,0,...]`` (half a million
values fit in 1 MiB).  Counting stops the read at the first value over the limit.
"""

MAX_NESTING_DEPTH: int = 32
"""Deepest nesting of lists and mappings, counting the top-level mapping as 1.

A NetBox device type nests four deep (``interfaces`` > entry > field > value) and an
``items:`` file with ``props`` five.  Code that walks values (JSON snapshots,
``repr`` in messages, the window's inspector) recurses, so depth is kept far below
Python's recursion limit of 1,000; libyaml alone allows 1,000 and the pure-Python
parser has no limit at all.
"""

MAX_STRING_CHARS: int = 16 * 1024
"""Longest text value, in characters (16 Ki).

The longest real values are ``comments`` of a few hundred characters of Markdown.
Text is shown in tooltips, the inspector and printed reports, and copied into every
design's snapshot; a 1 MB model name would slow each of them.
"""

MAX_KEY_CHARS: int = 256
"""Longest field name (mapping key), in characters.

NetBox's field names are under 40 characters.  Field names are quoted in every error
message ("field 'x': ..."), which must stay one readable line.
"""

MAX_NUMBER_CHARS: int = 32
"""Longest number as written in the file, in characters.

Checked before the text is converted: turning a numeral of thousands of digits into
an integer takes time quadratic in its length (Python refuses above 4,300 digits
with an error that has no line).  Real figures need fewer than 12 characters.
"""

MAX_NUMBER_MAGNITUDE: float = 1e15
"""Largest absolute value of any number in a catalog file; ``.inf`` and ``.nan`` are
refused outright.

Real figures are far smaller: the priciest item is a few million dollars (about 1e9
in yen), the fastest GPU about 1e4 TFLOPS.  Below 2**53 (9.0e15) every integer is
exact as a float and survives the JSON round trip of a design's snapshot unchanged;
infinite and NaN values have no JSON form at all and poison every sum they enter.
"""

MAX_ITEMS_PER_FILE: int = 2_000
"""Most entries in one file's ``items:`` list.

The shipped files hold at most 20 (GPUs, optics, cables).  Each entry is validated
and becomes a palette row, so the cap is checked before the first one is parsed.
"""

MAX_CATALOG_FILES: int = 20_000
"""Most YAML files read from one catalog folder.

The whole community library is about 5,000 device types.  A folder holding more is
almost certainly the wrong one (a home folder set as ``WORKBENCH_USER_CATALOG``); the
walk stops there with one error instead of reading for minutes at every start.
"""

MAX_SLUG_CHARS: int = 100
"""Longest slug, NetBox's own ``SlugField`` limit.

An imported file is written as ``<slug>.yaml``, and file names are limited to 255
bytes: without a cap, a long slug would fail with an OS error after validating.
"""

MAX_U_HEIGHT: float = 100.0
"""Tallest item in rack units.

The tallest racks sold are 58U.  The rack views draw and the placement code loops
per unit, so a ``u_height`` of 1e12 (finite, and a whole number) would hang them.
"""

MAX_GPUS_PER_ITEM: int = 1_024
"""Most GPUs one catalog item may carry (``gpu_count``).

The largest single systems have 72 (a GB200 NVL72 rack) and planned ones 576.  The
fabric generator and the calculators create links and figures per GPU.
"""
