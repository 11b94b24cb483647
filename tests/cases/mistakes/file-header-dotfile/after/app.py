import os
import logging

DEBUG=1
