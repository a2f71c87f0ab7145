// Debian's libsecp256k1 (libsecp256k1-dev), with its recovery module: Ethereum's signatures
// name their signer by the public key they recover to.
#include <secp256k1.h>
#include <secp256k1_recovery.h>
