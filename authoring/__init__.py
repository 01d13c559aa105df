"""The kit's authoring tools, apart from grading: the handouts rendered to HTML (handouts), their
figures (figures), and the student and instructor editions of the kit (dist).

    python3 -m authoring.figures    make figures
    python3 -m authoring.handouts   make handouts
    python3 -m authoring.dist       make dist-student, make dist-instructor
"""
