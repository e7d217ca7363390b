// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IENSRegistry {
    function resolver(bytes32 node) external view returns (address);
}

interface IExtendedResolver {
    function resolve(bytes calldata name, bytes calldata data) external view returns (bytes memory);
}

/// @notice The batch gateway request ENS's Universal Resolver makes (EIP-3668). A client
/// answers it itself (viem's local batch gateway, `x-batch-gateway:true`) by calling each
/// resolver's gateways and returning every answer or failure.
interface IBatchGateway {
    struct Request {
        address sender;
        string[] urls;
        bytes data;
    }

    function query(Request[] memory) external view returns (bool[] memory failures, bytes[] memory responses);
}

/// @notice The two entry points of ENS's Universal Resolver that viem's getEnsName and
/// getEnsText call, over a real ENS registry, with what mainnet's resolver does:
///  - ENSIP-10: the resolver of a name is found by walking up to its parents; a parent's
///    resolver answers only when it is an extended (wildcard) resolver.
///  - ENSIP-19: the reverse name of an address for a coin type (`[addr].addr.reverse` for 60,
///    `[addr].default.reverse` for the default EVM coin type 0x80000000,
///    `[addr].[coinTypeAsHex].reverse` for an EVM chain's 0x80000000 | chainId), and the
///    primary name forward-verified for that coin type (`addr(node)` for 60, else
///    `addr(node, coinType)`).
///  - EIP-3668: a resolver that reverts `OffchainLookup` is answered through the batch gateway
///    URLs the caller gives (viem: its local batch gateway), as many callbacks deep as the
///    resolver asks.
/// Errors carry the Universal Resolver's names, so viem maps them exactly as on mainnet.
contract UniversalResolver {
    error ResolverNotFound(bytes name);
    error ResolverNotContract(bytes name, address resolver);
    error ResolverError(bytes errorData);
    error ReverseAddressMismatch(string primary, bytes primaryAddress);
    error UnsupportedResolverProfile(bytes4 selector);
    error OffchainLookup(address sender, string[] urls, bytes callData, bytes4 callbackFunction, bytes extraData);

    bytes4 internal constant EXTENDED_RESOLVER = 0x9061b923;
    bytes4 internal constant NAME_SELECTOR = 0x691f3431; // name(bytes32)
    bytes4 internal constant ADDR_SELECTOR = 0x3b3b57de; // addr(bytes32)
    bytes4 internal constant ADDR_COIN_SELECTOR = 0xf1cb7e06; // addr(bytes32,uint256)
    uint256 internal constant COIN_TYPE_ETH = 60;
    uint256 internal constant COIN_TYPE_DEFAULT = 0x80000000;

    IENSRegistry public immutable registry;

    /// @dev A resolver call in flight, carried through CCIP-read callbacks.
    struct Call {
        address resolver;
        bool extended;
        bytes4 selector; // the profile asked (for UnsupportedResolverProfile)
        string[] gateways; // the caller's batch gateways
        bytes4 next; // this contract's continuation, called with (answer, nextData)
        bytes nextData;
    }

    struct ReverseArgs {
        bytes lookupAddress;
        uint256 coinType;
        string[] gateways;
        address reverseResolver;
    }

    constructor(IENSRegistry registry_) {
        registry = registry_;
    }

    function resolveWithGateways(bytes calldata name, bytes calldata data, string[] calldata gateways)
        external
        view
        returns (bytes memory, address)
    {
        (address resolver, bool extended,) = requireResolver(name);
        _callResolver(
            Call(resolver, extended, bytes4(data), gateways, this.resolveCallback.selector, abi.encode(resolver)), name, data
        );
    }

    function resolveCallback(bytes calldata answer, bytes calldata extraData) external pure returns (bytes memory, address) {
        return (answer, abi.decode(extraData, (address)));
    }

    function reverseWithGateways(bytes calldata lookupAddress, uint256 coinType, string[] calldata gateways)
        external
        view
        returns (string memory, address, address)
    {
        _reverse(ReverseArgs(lookupAddress, coinType, gateways, address(0)));
    }

    function _reverse(ReverseArgs memory args) internal view {
        bytes memory reverseName = reverseNameOf(args.lookupAddress, args.coinType);
        (address resolver, bool extended, bytes32 node) = requireResolver(reverseName);
        args.reverseResolver = resolver;
        _callResolver(
            Call(resolver, extended, NAME_SELECTOR, args.gateways, this.reverseNameCallback.selector, abi.encode(args)),
            reverseName,
            abi.encodeWithSelector(NAME_SELECTOR, node)
        );
    }

    function reverseNameCallback(bytes calldata answer, bytes calldata extraData)
        external
        view
        returns (string memory, address, address)
    {
        ReverseArgs memory args = abi.decode(extraData, (ReverseArgs));
        string memory primary = abi.decode(answer, (string));
        if (bytes(primary).length == 0) return ("", address(0), args.reverseResolver);
        _verify(args, primary);
    }

    /// @dev Forward resolution of the primary name for the coin type (step 2 of ENSIP-19).
    function _verify(ReverseArgs memory args, string memory primary) internal view {
        bytes memory name = dnsEncode(bytes(primary));
        (address resolver, bool extended, bytes32 node) = requireResolver(name);
        bytes memory data = args.coinType == COIN_TYPE_ETH
            ? abi.encodeWithSelector(ADDR_SELECTOR, node)
            : abi.encodeWithSelector(ADDR_COIN_SELECTOR, node, args.coinType);
        _callResolver(
            Call(
                resolver,
                extended,
                bytes4(data),
                args.gateways,
                this.reverseAddressCallback.selector,
                abi.encode(args, primary, resolver)
            ),
            name,
            data
        );
    }

    function reverseAddressCallback(bytes calldata answer, bytes calldata extraData)
        external
        pure
        returns (string memory primary, address resolver, address reverseResolver)
    {
        ReverseArgs memory args;
        (args, primary, resolver) = abi.decode(extraData, (ReverseArgs, string, address));
        bytes memory primaryAddress = args.coinType == COIN_TYPE_ETH
            ? abi.encodePacked(abi.decode(answer, (address)))
            : abi.decode(answer, (bytes));
        if (keccak256(primaryAddress) != keccak256(args.lookupAddress)) {
            revert ReverseAddressMismatch(primary, primaryAddress);
        }
        reverseResolver = args.reverseResolver;
    }

    /// @dev CCIP-read callback: the batch gateway's answer to one resolver's OffchainLookup.
    function batchCallback(bytes calldata response, bytes calldata extraData) external view {
        (Call memory c, bytes4 callback, bytes memory callbackData) = abi.decode(extraData, (Call, bytes4, bytes));
        (bool[] memory failures, bytes[] memory responses) = abi.decode(response, (bool[], bytes[]));
        bytes memory answer = responses[0];
        if (failures[0]) {
            assembly {
                revert(add(answer, 32), mload(answer)) // HttpError or Error from the gateway
            }
        }
        _attempt(c, abi.encodeWithSelector(callback, answer, callbackData));
    }

    /// @notice ENSIP-10: the resolver for a DNS-encoded name, or a revert saying why none.
    function requireResolver(bytes memory name) public view returns (address resolver, bool extended, bytes32 node) {
        node = dnsNamehash(name, 0);
        uint256 offset = 0;
        while (true) {
            resolver = registry.resolver(dnsNamehash(name, offset));
            if (resolver != address(0)) break;
            uint256 length = uint8(name[offset]);
            if (length == 0) revert ResolverNotFound(name);
            offset += 1 + length;
        }
        if (resolver.code.length == 0) revert ResolverNotContract(name, resolver);
        (bool ok, bytes memory answer) =
            resolver.staticcall{gas: 30000}(abi.encodeWithSelector(0x01ffc9a7, EXTENDED_RESOLVER));
        extended = ok && answer.length == 32 && abi.decode(answer, (bool));
        if (offset != 0 && !extended) revert ResolverNotFound(name); // a parent's resolver must be a wildcard
    }

    function _callResolver(Call memory c, bytes memory name, bytes memory data) internal view {
        _attempt(c, c.extended ? abi.encodeCall(IExtendedResolver.resolve, (name, data)) : data);
    }

    /// @dev Calls the resolver; its answer goes to the continuation, its OffchainLookup to the
    /// caller's batch gateways (coming back through batchCallback), anything else is an error.
    function _attempt(Call memory c, bytes memory payload) internal view {
        (bool ok, bytes memory answer) = c.resolver.staticcall(payload);
        if (ok) {
            if (c.extended) answer = abi.decode(answer, (bytes));
            if (answer.length == 0) revert UnsupportedResolverProfile(c.selector);
            _continue(abi.encodeWithSelector(c.next, answer, c.nextData));
        }
        if (answer.length >= 4 && bytes4(answer) == OffchainLookup.selector) {
            (address sender, string[] memory urls, bytes memory callData, bytes4 callback, bytes memory extraData) =
                abi.decode(slice(answer, 4, answer.length), (address, string[], bytes, bytes4, bytes));
            if (sender != c.resolver) revert ResolverError(answer);
            IBatchGateway.Request[] memory requests = new IBatchGateway.Request[](1);
            requests[0] = IBatchGateway.Request(sender, urls, callData);
            revert OffchainLookup(
                address(this),
                c.gateways,
                abi.encodeCall(IBatchGateway.query, (requests)),
                this.batchCallback.selector,
                abi.encode(c, callback, extraData)
            );
        }
        if (answer.length >= 4 && bytes4(answer) == UnsupportedResolverProfile.selector) {
            assembly {
                revert(add(answer, 32), mload(answer))
            }
        }
        revert ResolverError(answer);
    }

    /// @dev Runs a continuation of this contract and ends the call with what it returns or reverts.
    function _continue(bytes memory call) internal view {
        (bool ok, bytes memory result) = address(this).staticcall(call);
        if (ok) {
            assembly {
                return(add(result, 32), mload(result))
            }
        }
        assembly {
            revert(add(result, 32), mload(result))
        }
    }

    /// @notice ENSIP-19's reverse name of an address for a coin type, DNS-encoded.
    function reverseNameOf(bytes memory lookupAddress, uint256 coinType) public pure returns (bytes memory) {
        bytes memory label;
        if (coinType == COIN_TYPE_ETH) label = "addr";
        else if (coinType == COIN_TYPE_DEFAULT) label = "default";
        else label = hexOf(coinType);
        return abi.encodePacked(
            uint8(lookupAddress.length * 2), hexBytes(lookupAddress), uint8(label.length), label, uint8(7), "reverse", uint8(0)
        );
    }

    /// namehash of a DNS wire-format name (length-prefixed labels, zero-terminated) from `offset`.
    function dnsNamehash(bytes memory name, uint256 offset) internal pure returns (bytes32) {
        uint256 length = uint8(name[offset]);
        if (length == 0) return bytes32(0);
        bytes32 labelHash = keccak256(slice(name, offset + 1, offset + 1 + length));
        return keccak256(abi.encodePacked(dnsNamehash(name, offset + 1 + length), labelHash));
    }

    /// "alice.eth" → DNS wire format.
    function dnsEncode(bytes memory name) internal pure returns (bytes memory out) {
        out = new bytes(name.length + 2);
        uint256 start = 0;
        for (uint256 i = 0; i <= name.length; i++) {
            if (i == name.length || name[i] == ".") {
                require(i - start > 0 && i - start < 256, "bad label");
                out[start] = bytes1(uint8(i - start));
                for (uint256 j = start; j < i; j++) out[j + 1] = name[j];
                start = i + 1;
            }
        }
        out[name.length + 1] = 0;
    }

    function slice(bytes memory data, uint256 start, uint256 end) internal pure returns (bytes memory out) {
        out = new bytes(end - start);
        for (uint256 i = 0; i < out.length; i++) out[i] = data[start + i];
    }

    function hexBytes(bytes memory data) internal pure returns (bytes memory out) {
        bytes16 digits = "0123456789abcdef";
        out = new bytes(data.length * 2);
        for (uint256 i = 0; i < data.length; i++) {
            out[2 * i] = digits[uint8(data[i]) >> 4];
            out[2 * i + 1] = digits[uint8(data[i]) & 0xf];
        }
    }

    /// lowercase hex without leading zeros ("80002105")
    function hexOf(uint256 value) internal pure returns (bytes memory out) {
        bytes16 digits = "0123456789abcdef";
        uint256 length = 0;
        for (uint256 v = value; v != 0; v >>= 4) length++;
        if (length == 0) length = 1;
        out = new bytes(length);
        for (uint256 i = length; i > 0; i--) {
            out[i - 1] = digits[value & 0xf];
            value >>= 4;
        }
    }
}
