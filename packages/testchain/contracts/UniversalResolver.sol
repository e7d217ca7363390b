// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IENSRegistry {
    function resolver(bytes32 node) external view returns (address);
}

interface INameResolver {
    function name(bytes32 node) external view returns (string memory);
}

interface IAddrResolver {
    function addr(bytes32 node) external view returns (address);
}

/// @notice The two entry points of ENS's Universal Resolver that viem's getEnsName,
/// getEnsText and getEnsAvatar call, implemented over a real ENS registry and resolver
/// (no offchain gateways). Errors carry the Universal Resolver's names so that viem maps
/// "no name" / "no resolver" to null exactly as it does on mainnet.
contract UniversalResolver {
    error ResolverNotFound(bytes name);
    error ResolverError(bytes errorData);
    error ReverseAddressMismatch(string primary, bytes primaryAddress);
    error UnsupportedResolverProfile(bytes4 selector);

    // namehash("addr.reverse")
    bytes32 internal constant ADDR_REVERSE_NODE = 0x91d1777781884d03a6757a803996e38de2a42967fb37eeaca72729271025a9e2;
    uint256 internal constant COIN_TYPE_ETH = 60;

    IENSRegistry public immutable registry;

    constructor(IENSRegistry registry_) {
        registry = registry_;
    }

    function resolveWithGateways(bytes calldata name, bytes calldata data, string[] calldata)
        external
        view
        returns (bytes memory, address)
    {
        bytes32 node = dnsNamehash(name, 0);
        address resolver = registry.resolver(node);
        if (resolver == address(0)) revert ResolverNotFound(name);
        (bool ok, bytes memory result) = resolver.staticcall(data);
        if (!ok) revert ResolverError(result);
        return (result, resolver);
    }

    function reverseWithGateways(bytes calldata lookupAddress, uint256 coinType, string[] calldata)
        external
        view
        returns (string memory resolvedName, address resolver, address reverseResolver)
    {
        if (coinType != COIN_TYPE_ETH || lookupAddress.length != 20) {
            revert UnsupportedResolverProfile(INameResolver.name.selector);
        }
        address account = address(bytes20(lookupAddress));
        bytes32 reverseNode = keccak256(abi.encodePacked(ADDR_REVERSE_NODE, keccak256(hexLower(account))));
        reverseResolver = registry.resolver(reverseNode);
        if (reverseResolver == address(0)) revert ResolverNotFound(lookupAddress);
        resolvedName = INameResolver(reverseResolver).name(reverseNode);
        if (bytes(resolvedName).length == 0) return ("", address(0), reverseResolver);

        bytes32 node = textNamehash(bytes(resolvedName));
        resolver = registry.resolver(node);
        if (resolver == address(0)) revert ResolverNotFound(bytes(resolvedName));
        address forward = IAddrResolver(resolver).addr(node);
        if (forward != account) revert ReverseAddressMismatch(resolvedName, abi.encodePacked(forward));
    }

    /// namehash of a DNS wire-format name (length-prefixed labels, zero-terminated).
    function dnsNamehash(bytes calldata name, uint256 offset) internal pure returns (bytes32) {
        uint256 length = uint8(name[offset]);
        if (length == 0) return bytes32(0);
        bytes32 labelHash = keccak256(name[offset + 1:offset + 1 + length]);
        return keccak256(abi.encodePacked(dnsNamehash(name, offset + 1 + length), labelHash));
    }

    /// namehash of a dotted name ("alice.eth").
    function textNamehash(bytes memory name) internal pure returns (bytes32 node) {
        uint256 end = name.length;
        for (uint256 i = name.length; i > 0; i--) {
            if (name[i - 1] == ".") {
                node = keccak256(abi.encodePacked(node, keccak256(slice(name, i, end))));
                end = i - 1;
            }
        }
        node = keccak256(abi.encodePacked(node, keccak256(slice(name, 0, end))));
    }

    function slice(bytes memory data, uint256 start, uint256 end) internal pure returns (bytes memory out) {
        out = new bytes(end - start);
        for (uint256 i = 0; i < out.length; i++) out[i] = data[start + i];
    }

    function hexLower(address account) internal pure returns (bytes memory out) {
        bytes16 digits = "0123456789abcdef";
        out = new bytes(40);
        uint160 value = uint160(account);
        for (uint256 i = 40; i > 0; i--) {
            out[i - 1] = digits[value & 0xf];
            value >>= 4;
        }
    }
}
