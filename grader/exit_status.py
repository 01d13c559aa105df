"""The grader command's exit statuses, in one place: the command line sets them, the LMS runner
and the job scripts read them. Whose failure each is travels as the status, never as words."""

GRADED = 0  # every case graded (some may be wrong: the report says which)
POINTS_MISSING = 1  # check --require-full: points missing; batch: a submission not graded
CANNOT_START = 2  # the kit's or the TA's to fix: a bad lab or option, no sandbox can run here
NOT_ALL_GRADED = 3  # graded, but the grader failed on some case (IE): not the student's; grade again once fixed
REFUSED = 4  # the submission was refused before building (intake): the student's to fix
