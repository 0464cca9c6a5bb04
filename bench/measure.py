#!/usr/bin/env python3
"""measure.py CMD...: runs CMD (output discarded) and prints
"SECONDS MAXRSS_KB STATUS" for that one child (wait4 rusage)."""
import os
import subprocess
import sys
import time

start = time.monotonic()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
elapsed = time.monotonic() - start
print('%.3f %d %d' % (elapsed, usage.ru_maxrss, os.waitstatus_to_exitcode(status)))
