// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @notice Primary names for one coin type, answered as ENS's reverse resolvers on mainnet
/// answer them (ENSIP-19): a wildcard (ENSIP-10) resolver for `[addr].<coin>.reverse` whose
/// `name()` is the name set for that address, else the default name (the resolver of
/// `default.reverse`, another ReverseResolver), else "". On mainnet the names of an L2's coin
/// type live on that L2 and are read through a gateway; here the deployer sets them directly.
contract ReverseResolver {
    error UnsupportedResolverProfile(bytes4 selector);

    bytes4 internal constant NAME_SELECTOR = 0x691f3431; // name(bytes32)

    address public immutable owner;
    uint256 public immutable coinType;
    ReverseResolver public immutable defaultNames;
    mapping(address => string) public names;

    constructor(uint256 coinType_, ReverseResolver defaultNames_) {
        owner = msg.sender;
        coinType = coinType_;
        defaultNames = defaultNames_;
    }

    function setNameForAddr(address account, string calldata name) external {
        require(msg.sender == owner, "only the deployer");
        names[account] = name;
    }

    function nameForAddr(address account) public view returns (string memory name) {
        name = names[account];
        if (bytes(name).length == 0 && address(defaultNames) != address(0)) name = defaultNames.nameForAddr(account);
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 || interfaceId == 0x9061b923; // ERC-165, IExtendedResolver
    }

    /// @param name DNS-encoded `[40 hex digits].<coin>.reverse`
    function resolve(bytes calldata name, bytes calldata data) external view returns (bytes memory) {
        if (bytes4(data) != NAME_SELECTOR) revert UnsupportedResolverProfile(bytes4(data));
        if (uint8(name[0]) != 40) return abi.encode("");
        uint160 value = 0;
        for (uint256 i = 1; i <= 40; i++) {
            uint8 c = uint8(name[i]);
            uint8 digit;
            if (c >= 48 && c <= 57) digit = c - 48;
            else if (c >= 97 && c <= 102) digit = c - 87;
            else return abi.encode("");
            value = (value << 4) | digit;
        }
        return abi.encode(nameForAddr(address(value)));
    }
}
