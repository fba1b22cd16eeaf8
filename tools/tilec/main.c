#include "tilec/tir.h"
int main(void) { return 0; }
