import os

DEBUG=1
