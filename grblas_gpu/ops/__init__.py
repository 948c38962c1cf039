"""The operations: each builds a delayed Expression whose compute() gives the result T."""
