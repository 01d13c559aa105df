# Placeholder until the emulator lands: see CONTRACT.md.
EMU_CXX ?= g++
EMU_REWRITE = python3 labs/emu/rewrite_launches.py
EMU_CXXFLAGS = -std=c++17 -O2 -g -pthread -Ilabs/emu/include
EMU_LDFLAGS = -pthread
EMU_LIB = build/emu/libcudaemu.a
