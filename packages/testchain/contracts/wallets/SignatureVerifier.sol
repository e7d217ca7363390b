// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IERC1271 {
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4);
}

/// @notice A deployed ERC-6492 signature verifier, as chains that cannot run a deployless
/// `eth_call` (zkSync Era, Abstract) have one: `isValidSig(signer, hash, signature)` checks a
/// deployed ERC-1271 wallet, or deploys a counterfactual one (ERC-6492 wrapper) and checks it,
/// undoing the deployment, or recovers a plain ECDSA signature. Written for the test chain
/// from the behaviour ERC-6492 specifies.
contract SignatureVerifier {
    bytes32 private constant SUFFIX = 0x6492649264926492649264926492649264926492649264926492649264926492;

    error DeploymentFailed(bytes reason);
    error WalletReverted(bytes reason);

    function isValidSig(address signer, bytes32 hash, bytes calldata signature) external returns (bool) {
        try this.check(signer, hash, signature) returns (bool valid) {
            return valid;
        } catch (bytes memory reason) {
            // A one-byte revert carries the answer of a check that deployed a wallet (undone).
            if (reason.length == 1) return reason[0] == 0x01;
            assembly {
                revert(add(reason, 0x20), mload(reason))
            }
        }
    }

    function check(address signer, bytes32 hash, bytes calldata signature) external returns (bool) {
        require(msg.sender == address(this), "internal");
        bool wrapped = signature.length >= 32 && bytes32(signature[signature.length - 32:]) == SUFFIX;
        bool deployed = signer.code.length > 0;
        bytes memory inner = signature;
        if (wrapped) {
            address factory;
            bytes memory factoryData;
            (factory, factoryData, inner) = abi.decode(signature[:signature.length - 32], (address, bytes, bytes));
            if (!deployed) {
                (bool ok, bytes memory reason) = factory.call(factoryData);
                if (!ok) revert DeploymentFailed(reason);
            }
        }
        if (wrapped || deployed) {
            bool valid;
            try IERC1271(signer).isValidSignature(hash, inner) returns (bytes4 magic) {
                valid = magic == 0x1626ba7e;
            } catch (bytes memory reason) {
                revert WalletReverted(reason);
            }
            if (wrapped && !deployed) {
                assembly {
                    mstore(0, valid)
                    revert(31, 1)
                }
            }
            return valid;
        }
        if (signature.length != 65) return false;
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27;
        return ecrecover(hash, v, bytes32(signature[0:32]), bytes32(signature[32:64])) == signer;
    }
}
