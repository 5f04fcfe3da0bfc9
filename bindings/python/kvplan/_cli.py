"""The `kvplan` console entry point of the wheel: runs the kvplan executable packed beside this
module (kvplan/bin/kvplan), with the same arguments, exit code and output."""
import os
import sys


def main():
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "kvplan")
    if not os.access(exe, os.X_OK):
        sys.stderr.write(f"kvplan: internal error: the kvplan executable is missing from this installation ({exe})\n")
        return 4
    os.execv(exe, [exe] + sys.argv[1:])
    return 4  # not reached: execv replaces the process


if __name__ == "__main__":
    sys.exit(main())
