"""Layer 8, checks: runs checked against the papers: ``crosscheck`` (a paper's script
against trec_eval, quirk by quirk), ``validate`` (a protocol's rules), the published
tables and runs beside them.

Imports the layers below it (base up to evaluation).
"""
