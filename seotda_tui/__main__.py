"""``seotda-server`` entry point (the SSH server lands with the SSH issue)."""

import sys


def main() -> int:
    print("seotda-server: SSH 서버는 아직 준비되지 않았어요 (not yet implemented)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
