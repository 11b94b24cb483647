import json
import os

print(os.getcwd())
