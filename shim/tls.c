#include "tls.h"

AFX_TLS int afx_busy;
