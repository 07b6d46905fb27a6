"""Writes to stderr as fast as it can, forever, and never answers."""
import sys

line = "flood " * 100 + "\n"
while True:
    sys.stderr.write(line)
