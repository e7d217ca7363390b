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

/// @notice An ERC-1271 wallet whose answer has an odd *shape*, to check that a verifier reads an
/// answer as Solidity does (`abi.decode(answer, (bytes4)) == 0x1626ba7e`: at least 32 bytes, the
/// magic value then 28 zero bytes, anything after ignored). For its owner's own signature (65-byte
/// ECDSA over the hash) it returns exactly `length` bytes: `word`, then 0xff bytes; for anything
/// else the plain refusal 0xffffffff. Immutables only, so it also works as the code an EOA
/// delegates to under EIP-7702 (owner zero: the account itself signs).
contract ShapedAnswerWallet {
    address private immutable owner;
    bytes32 private immutable word;
    uint256 private immutable length;

    constructor(address owner_, bytes32 word_, uint256 length_) {
        require(length_ <= 128, "at most 128 bytes");
        owner = owner_;
        word = word_;
        length = length_;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        address signer = owner == address(0) ? address(this) : owner;
        if (signature.length != 65) return bytes4(0xffffffff);
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27;
        if (ecrecover(hash, v, bytes32(signature[0:32]), bytes32(signature[32:64])) != signer) return bytes4(0xffffffff);
        bytes32 w = word;
        uint256 n = length;
        assembly {
            let p := mload(0x40)
            mstore(p, w)
            mstore(add(p, 0x20), not(0))
            mstore(add(p, 0x40), not(0))
            mstore(add(p, 0x60), not(0))
            return(p, n)
        }
    }
}
