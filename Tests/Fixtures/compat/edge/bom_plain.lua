#!/usr/bin/env retrolua
print("plain bom script")
error("line three")
