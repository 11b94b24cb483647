@echo off
echo done
