// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

/// @notice The reference for how an ERC-1271 answer is read on chain: OpenZeppelin Contracts'
/// own `SignatureChecker`, and the same question put through Solidity's ABI decoder. Tests ask
/// both and compare Signet's answer with theirs, wallet by wallet.
contract SignatureCheckerReference {
    /// @notice OpenZeppelin's check, as contracts that accept ERC-1271 signatures call it.
    function openZeppelin(address signer, bytes32 hash, bytes calldata signature) external view returns (bool) {
        return SignatureChecker.isValidERC1271SignatureNow(signer, hash, signature);
    }

    /// @notice `abi.decode(answer, (bytes4)) == 0x1626ba7e`; a call that reverts, or an answer the
    /// decoder refuses (shorter than 32 bytes, or non-zero bytes after the four), is a no.
    function abiDecode(address signer, bytes32 hash, bytes calldata signature) external view returns (bool) {
        (bool ok, bytes memory answer) = signer.staticcall(abi.encodeCall(IERC1271.isValidSignature, (hash, signature)));
        if (!ok) return false;
        try this.decodeMagic(answer) returns (bytes4 magic) {
            return magic == IERC1271.isValidSignature.selector;
        } catch {
            return false;
        }
    }

    function decodeMagic(bytes memory answer) external pure returns (bytes4) {
        return abi.decode(answer, (bytes4));
    }
}
