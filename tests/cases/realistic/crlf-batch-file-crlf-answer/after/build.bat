@echo off
if "%1"=="" (set CONFIG=Debug) else (set CONFIG=%1)
msbuild App.sln /p:Configuration=%CONFIG%
