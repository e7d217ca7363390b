// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @notice Token fixtures for access-condition tests: the read functions of ERC-20, ERC-721 and
/// ERC-1155 that a balance check calls, plus mint and move functions only the deployer may call
/// (a test stands in for the holder's own transfer with `move`).
abstract contract Administered {
    address internal immutable admin = msg.sender;

    modifier onlyAdmin() {
        require(msg.sender == admin, "only the deployer");
        _;
    }
}

contract TestERC20 is Administered {
    mapping(address => uint256) public balanceOf;

    function mint(address to, uint256 amount) external onlyAdmin {
        balanceOf[to] += amount;
    }

    function move(address from, address to, uint256 amount) external onlyAdmin {
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
    }
}

contract TestERC721 is Administered {
    mapping(uint256 => address) private owners;
    mapping(address => uint256) public balanceOf;

    function ownerOf(uint256 id) external view returns (address owner) {
        owner = owners[id];
        require(owner != address(0), "ERC721: invalid token ID");
    }

    function mint(address to, uint256 id) external onlyAdmin {
        require(owners[id] == address(0), "already minted");
        owners[id] = to;
        balanceOf[to] += 1;
    }

    function move(address to, uint256 id) external onlyAdmin {
        address from = owners[id];
        require(from != address(0), "ERC721: invalid token ID");
        balanceOf[from] -= 1;
        owners[id] = to;
        balanceOf[to] += 1;
    }
}

contract TestERC1155 is Administered {
    mapping(uint256 => mapping(address => uint256)) private balances;

    function balanceOf(address account, uint256 id) external view returns (uint256) {
        return balances[id][account];
    }

    function mint(address to, uint256 id, uint256 amount) external onlyAdmin {
        balances[id][to] += amount;
    }

    function move(address from, address to, uint256 id, uint256 amount) external onlyAdmin {
        balances[id][from] -= amount;
        balances[id][to] += amount;
    }
}
