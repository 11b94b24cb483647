import os
import sys
import json

DEBUG = os.environ.get("DEBUG") == "1"
