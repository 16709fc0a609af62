/* Placeholder main until the CLI lands. */
#include <stdio.h>
int main(void) { puts("rooftune: under construction"); return 0; }
