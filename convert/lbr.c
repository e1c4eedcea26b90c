#include "lbr.h"
