// Hostile submission: Build-time theft: includes the emulator's rewrite of the reference, left in another build
// folder. Sandbox on: no other build folder is in the build's view, so CE.
#include "../../emu-solution/increment/increment.o.emu.cpp"
