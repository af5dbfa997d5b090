#include <stddef.h>
#include <zxcvbn.h>
