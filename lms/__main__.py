"""python3 -m lms gradescope|prairielearn|github-classroom <lab> [--secret-file F] [--image NAME] [--out DIR]

Makes one LMS's bundle for one lab (the Makefile's `make gradescope LAB=<lab>` etc. call this).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lms import classroom, gradescope, prairielearn
from lms.kit import BundleError


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m lms", description="Makes an LMS's grading bundle for a lab.")
    p.add_argument("lms", choices=("gradescope", "prairielearn", "github-classroom"))
    p.add_argument("lab")
    p.add_argument("--secret-file", type=Path, metavar="FILE",
                   help="grade hidden cases too: the bundle then holds the secret (do not share it)")
    p.add_argument("--image", default=prairielearn.DEFAULT_IMAGE,
                   help=f"PrairieLearn's grading image (default {prairielearn.DEFAULT_IMAGE})")
    p.add_argument("--out", type=Path, metavar="DIR", help="default: build/<lms>/")
    args = p.parse_args(argv)
    out = {"out_dir": args.out} if args.out else {}
    try:
        if args.lms == "gradescope":
            gradescope.make(args.lab, secret_file=args.secret_file, **out)
        elif args.lms == "prairielearn":
            prairielearn.make(args.lab, secret_file=args.secret_file, image=args.image, **out)
        else:
            if args.secret_file:
                raise BundleError("GitHub Classroom grades in the student's own repository, where a secret "
                                  "would be in the student's reach: leave SECRET_FILE out; grade hidden "
                                  "cases on the cluster (grader batch --secret-file)")
            classroom.make(args.lab, **out)
    except BundleError as e:
        print(f"lms: error: {args.lms} bundle for lab {args.lab}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
