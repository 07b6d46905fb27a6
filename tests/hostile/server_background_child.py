"""Starts a child that outlives it (writing its pid to argv[1]), then exits without a word."""
import subprocess
import sys
import time

subprocess.Popen([sys.executable, "-c", "import os, sys, time\n"
                  "open(sys.argv[1], 'w').write(str(os.getpid()))\ntime.sleep(120)", sys.argv[1]])
time.sleep(0.5)
