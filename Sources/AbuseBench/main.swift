// fermata-abuse-bench: being written (issue 13).
print("fermata-abuse-bench: not yet implemented")
