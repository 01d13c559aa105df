"""Grading in an LMS: bundles for Gradescope, PrairieLearn and GitHub Classroom.

Those graders have no GPU, so the bundles grade correctness under the kit's CPU emulator; GPU
timing stays with the course's cluster (`grader batch --scheduler slurm`). docs/lms.md is the
instructors' page.

    kit.py          what goes into a bundle: the student edition's files, the lab's cases and points
    results.py      the grader's JSON report -> Gradescope's and PrairieLearn's results.json
    runner.py       runs inside the LMS: stages the submission, grades it, always writes a results.json
    gradescope.py   make gradescope LAB=<lab>        -> build/gradescope/<lab>-autograder.zip
    prairielearn.py make prairielearn LAB=<lab>      -> build/prairielearn/<lab>/ (and .zip)
    classroom.py    make github-classroom LAB=<lab>  -> build/github-classroom/<lab>/ (a template repo)

The grader is used only through its command line and its JSON report (python3 -m grader check
... --json FILE), so this package does not depend on how grader/ is laid out inside.
"""
