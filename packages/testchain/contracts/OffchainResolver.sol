// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @notice An EIP-3668 off-chain resolver, as ENS's own OffchainResolver (the shape of cb.id,
/// *.base.eth and most subname services): a wildcard (ENSIP-10) resolver whose every answer
/// comes from gateway URLs through `OffchainLookup`, signed by the gateway's key. The gateway
/// signs keccak256(0x1900, this resolver, expires, keccak256(request), keccak256(result)).
/// `endless`: a hostile resolver whose callback asks for another lookup every time.
contract OffchainResolver {
    error OffchainLookup(address sender, string[] urls, bytes callData, bytes4 callbackFunction, bytes extraData);

    string[] public urls;
    address public immutable signer;
    bool public immutable endless;

    constructor(string[] memory urls_, address signer_, bool endless_) {
        urls = urls_;
        signer = signer_;
        endless = endless_;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 || interfaceId == 0x9061b923; // ERC-165, IExtendedResolver
    }

    function resolve(bytes calldata name, bytes calldata data) external view returns (bytes memory) {
        bytes memory callData = abi.encodeCall(this.resolve, (name, data));
        revert OffchainLookup(address(this), urls, callData, this.resolveWithProof.selector, callData);
    }

    /// @param response abi.encode(bytes result, uint64 expires, bytes signature)
    /// @param extraData the request the gateway answered
    function resolveWithProof(bytes calldata response, bytes calldata extraData) external view returns (bytes memory) {
        if (endless) revert OffchainLookup(address(this), urls, extraData, this.resolveWithProof.selector, extraData);
        (bytes memory result, uint64 expires, bytes memory signature) = abi.decode(response, (bytes, uint64, bytes));
        require(expires >= block.timestamp, "gateway answer expired");
        bytes32 hash = keccak256(abi.encodePacked(hex"1900", address(this), expires, keccak256(extraData), keccak256(result)));
        require(signature.length == 65, "bad signature length");
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly {
            r := mload(add(signature, 32))
            s := mload(add(signature, 64))
            v := byte(0, mload(add(signature, 96)))
        }
        require(ecrecover(hash, v, r, s) == signer, "not signed by the gateway");
        return result;
    }
}
