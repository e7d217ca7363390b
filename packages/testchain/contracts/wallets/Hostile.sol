// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @notice A hostile "wallet": its ERC-1271 check burns every unit of gas it is given.
contract GasBurningWallet {
    uint256 private counter;

    function isValidSignature(bytes32, bytes calldata) external view returns (bytes4) {
        uint256 i = counter;
        while (true) {
            i = uint256(keccak256(abi.encode(i)));
        }
        return bytes4(uint32(i));
    }
}

/// @notice A hostile "token" a client could name in its access conditions: every read burns all gas.
contract GasBurningToken {
    function balanceOf(address) external view returns (uint256) {
        uint256 i;
        while (true) {
            i = uint256(keccak256(abi.encode(i)));
        }
        return i;
    }
}

/// @notice An ERC-1271 wallet that accepts, for a hash its owner approved, exactly the signature
/// bytes the owner registered with it: any length, empty included (as wallets that sign on chain do).
contract ApprovedSignatureWallet {
    address public immutable owner;
    mapping(bytes32 => bytes32) private approved;

    constructor(address owner_) {
        owner = owner_;
    }

    function approve(bytes32 hash, bytes calldata signature) external {
        require(msg.sender == owner, "not the owner");
        approved[hash] = keccak256(abi.encode(true, signature));
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        return approved[hash] == keccak256(abi.encode(true, signature)) ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}
