// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Account} from "@openzeppelin/contracts/account/Account.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ERC7739} from "@openzeppelin/contracts/utils/cryptography/signers/draft-ERC7739.sol";
import {SignerECDSA} from "@openzeppelin/contracts/utils/cryptography/signers/SignerECDSA.sol";
import {SignerEIP7702} from "@openzeppelin/contracts/utils/cryptography/signers/SignerEIP7702.sol";

/// @notice OpenZeppelin Contracts 5.x smart account, assembled from the library's own parts as its
/// documentation shows: an ERC-4337 `Account` whose ERC-1271 check is ERC-7739 (a personal
/// signature nested in the account's own EIP-712 domain) over one ECDSA signer key.
contract OpenZeppelinAccountECDSA is Account, EIP712, ERC7739, SignerECDSA {
    constructor(address signerAddr) EIP712("OpenZeppelinAccountECDSA", "1") SignerECDSA(signerAddr) {}
}

/// @notice The same account as an EIP-7702 delegation target: the EOA that delegates to it signs
/// for itself (`SignerEIP7702`: the signer is `address(this)`), with ERC-7739 as above.
contract OpenZeppelinAccount7702 is Account, EIP712, ERC7739, SignerEIP7702 {
    constructor() EIP712("OpenZeppelinAccount7702", "1") {}
}
