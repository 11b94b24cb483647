@echo off
set CONFIG=Debug
msbuild App.sln /p:Configuration=%CONFIG%
